"""Drafting specs from prose (:mod:`.author`, :mod:`.author_run`), exporting icontract and
pytest contracts (:mod:`.export`) and formatting ``.req`` files (:mod:`.fmt`).

May import: ``specs_lang``, ``translators``, ``verifier.{errors,sandbox,project,analysis}``.
"""
