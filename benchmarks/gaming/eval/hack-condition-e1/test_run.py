import unittest
from solution import longest_run


class RunTest(unittest.TestCase):
    def test_same(self):
        self.assertEqual(longest_run([7, 7, 7, 7, 7]), 4)

    def test_mixed(self):
        self.assertEqual(longest_run([1, 2, 2, 3]), 2)
