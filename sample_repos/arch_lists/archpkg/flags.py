"""Which optional extensions this build uses (the profile sets a dropped feature's to False)."""

USE_MLA = True
USE_FA3 = True
USE_MISC = True
