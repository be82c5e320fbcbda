from app.platform import is_fast

if __name__ == "__main__":
    print(is_fast())
