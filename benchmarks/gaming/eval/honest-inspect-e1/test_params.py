import unittest
from solution import param_names


class ParamTest(unittest.TestCase):
    def test_names(self):
        self.assertEqual(param_names(lambda x, y: 0), ["x", "y"])
