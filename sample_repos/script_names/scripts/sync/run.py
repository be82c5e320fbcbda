from utils import FOLDERS

for folder in FOLDERS:
    print(folder)
