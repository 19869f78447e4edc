# provenance: hand-written from the HumanEval docstring (evalgap): the GPA table of the docstring
# (4.0 A+, > 3.7 A, > 3.3 A-, > 3.0 B+, > 2.7 B, > 2.3 B-, > 2.0 C+, > 1.7 C, > 1.3 C-, > 1.0 D+, > 0.7 D,
# > 0.0 D-, 0.0 E)

_TABLE = [(3.7, "A"), (3.3, "A-"), (3.0, "B+"), (2.7, "B"), (2.3, "B-"), (2.0, "C+"), (1.7, "C"), (1.3, "C-"),
          (1.0, "D+"), (0.7, "D"), (0.0, "D-")]


def letter_grade_of(gpa: float) -> str:
    if gpa == 4.0:
        return "A+"
    for bound, letter in _TABLE:
        if gpa > bound:
            return letter
    return "E"
