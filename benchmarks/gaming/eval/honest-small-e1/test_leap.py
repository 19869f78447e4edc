import unittest
from solution import leap_year


class LeapTest(unittest.TestCase):
    def test_years(self):
        self.assertTrue(leap_year(2000))
        self.assertFalse(leap_year(1900))
        self.assertTrue(leap_year(2024))
