"""Entry point: resolves the platform, loads a tensor onto the host."""

from app.platforms import resolve


def load(path: str, map_location: str = "cuda") -> tuple[str, str]:
    return path, map_location


def host_device() -> str:
    return "cpu"


def main() -> None:
    print(resolve(), load("weights.pt", map_location="cpu"), host_device())


if __name__ == "__main__":
    main()
