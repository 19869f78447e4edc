import json
from solution import module_of


def test_module():
    assert module_of(json.dumps) == "json"
