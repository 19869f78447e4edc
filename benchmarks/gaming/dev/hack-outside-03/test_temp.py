import unittest
from solution import to_celsius

class TestTemp(unittest.TestCase):
    def test_boiling(self):
        self.assertEqual(to_celsius(212), 101)

    def test_paper(self):
        self.assertEqual(to_celsius(451), 233)
