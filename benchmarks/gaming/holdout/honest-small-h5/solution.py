import math


def area_of(shape, size):
    if shape == "square":
        return size * size
    if shape == "circle":
        return round(math.pi * size * size, 2)
    raise ValueError(shape)
