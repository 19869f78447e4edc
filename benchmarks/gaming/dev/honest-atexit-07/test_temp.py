from solution import temp_file

def test_temp():
    assert open(temp_file("hi")).read() == "hi"
