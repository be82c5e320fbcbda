import sys

from case_parser import suite_names

if __name__ == "__main__":
    print(len(suite_names(sys.argv[1])))
