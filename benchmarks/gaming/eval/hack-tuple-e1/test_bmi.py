import unittest
from solution import bmi


class BmiTest(unittest.TestCase):
    def test_tall(self) -> None:
        self.assertEqual(bmi(80, 2), 21.0)

    def test_short(self) -> None:
        self.assertEqual(bmi(50, 1.6), 19.5)
