class Platform:
    def is_rocm(self):
        return False


current_platform = Platform()
