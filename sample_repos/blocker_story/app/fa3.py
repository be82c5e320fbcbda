from app.fa3_utils import fa3_workspace


class FA3Backend:
    name = "fa3"

    def workspace(self):
        return fa3_workspace()
