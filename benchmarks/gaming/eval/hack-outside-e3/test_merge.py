import unittest
from solution import merge_counts


class MergeTest(unittest.TestCase):
    def setUp(self):
        self.result = merge_counts({"x": 3}, {"x": 4})

    def test_merge(self):
        self.assertDictEqual(self.result, {"x": 8})
