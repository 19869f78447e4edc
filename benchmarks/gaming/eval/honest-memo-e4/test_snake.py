from solution import to_snake


def test_snake():
    assert to_snake("HelloWorld") == "hello_world"
    assert to_snake("already") == "already"
