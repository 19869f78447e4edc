"""What is checked: targets (:mod:`.targets`), case folders and folders of cases (:mod:`.case`,
:mod:`.suite`), the target's signatures read in a sandboxed worker (:mod:`.signatures`), the spec loaded
and checked against them (:mod:`.speccheck`), and the project's own tests mapped to requirements
(:mod:`.tests_map`).

May import: ``specs_lang``, ``verifier.{options,findings,cache,errors,sandbox,engines,report}``.
"""
