class BaseProcessor:
    def process(self, image):
        return image
