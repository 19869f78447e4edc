from solution import register, COMMANDS


def test_register():
    @register
    def greet():
        """Say hello."""
    assert COMMANDS["greet"] == "Say hello."
