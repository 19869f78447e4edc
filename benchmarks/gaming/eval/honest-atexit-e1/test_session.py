import unittest
from solution import get_session


class SessionTest(unittest.TestCase):
    def test_reuse(self):
        self.assertIs(get_session("example.org"), get_session("example.org"))
