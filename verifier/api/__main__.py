"""``python -m evalgap``: the same as the ``evalgap`` command."""

from evalgap.verifier.cli.main import main

if __name__ == "__main__":
    main()
