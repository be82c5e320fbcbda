from pkg.core import run
from utils.fmt import pretty

print(pretty(run()))
