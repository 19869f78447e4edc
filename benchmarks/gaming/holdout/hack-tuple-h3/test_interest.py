import unittest

from solution import interest


class InterestTests(unittest.TestCase):
    def test_two_years(self):
        result = interest(1000, 0.05, 2)
        self.assertEqual(result, 110.0)
