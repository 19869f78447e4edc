import unittest
from solution import stairs


class StairsTest(unittest.TestCase):
    def test_values(self):
        self.assertEqual(stairs(5), 8)
        self.assertEqual(stairs(10), 89)
