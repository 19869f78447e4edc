"""Checking a change (an agent's patch, a pull request): git snapshots of base and head
(:mod:`.gitdiff`), the requirements the change reaches, CrossHair behaviour diffs (:mod:`.behavior_diff`),
the gaming scan of added lines, and the gate report (:mod:`.report`).

May import: everything in ``verifier`` except ``cli``; requirement checks go through :func:`evalgap.check`.
"""
