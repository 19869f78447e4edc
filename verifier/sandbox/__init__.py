"""Worker processes for everything that imports or runs target code.

Owns: the registry of worker kinds (:mod:`.workers`), the limited runner (:mod:`.runner`), fork servers
(:mod:`.forkserver`), the OS isolation of every job (:mod:`.isolation`, with :mod:`.landlock` and
:mod:`.seccomp`) and the in-process audit-hook guard (:mod:`.guard`, the second layer). May import: the standard library
and :mod:`evalgap.verifier.errors` only (it is imported by worker processes, which must start fast and must
never import CrossHair in a process that checks contracts).
"""
