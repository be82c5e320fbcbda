class FA4Backend:
    pass
