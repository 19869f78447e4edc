"""The ``evalgap`` command: one module per command, each a thin layer over the library API in
:mod:`evalgap` (parse options, call the API, render, exit). Other packages add commands through the
``evalgap.commands`` entry-point group (``research`` adds ``compare`` and ``import``).

May import: everything.
"""
