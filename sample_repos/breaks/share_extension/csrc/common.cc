int common() { return 0; }
