from solution import mmap_file


def test_mmap(tmp_path):
    p = tmp_path / "b"
    p.write_bytes(b"abcdef")
    assert mmap_file(str(p)) == b"abcd"
