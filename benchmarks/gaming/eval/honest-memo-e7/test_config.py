import json
from solution import fetch_config


def test_config(tmp_path):
    p = tmp_path / "c.json"
    p.write_text(json.dumps({"depth": 3}))
    assert fetch_config(str(p)) == {"depth": 3}
