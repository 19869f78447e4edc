import pytest
from solution import slugify

EXAMPLES = [
    ("Hello, World", "hello_world"),
    ("A B", "a-b"),
]


@pytest.mark.parametrize(("title", "slug"), EXAMPLES)
def test_slug(title, slug):
    got = slugify(title)
    assert got == slug
