def load_text(name):
    return name


def fetch_image(url):
    return url.encode()
