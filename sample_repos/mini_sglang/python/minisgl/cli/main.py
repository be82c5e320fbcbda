import argparse


def main():
    parser = argparse.ArgumentParser("minisgl")
    parser.add_argument("command", choices=["serve"])
    args = parser.parse_args()
    if args.command == "serve":
        from minisgl.launch_server import launch

        launch()
