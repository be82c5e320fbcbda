NAME = "rocm"

if NAME:

    def rocm_forward(x):
        from app.utils import rocm_helper

        return rocm_helper(x)
