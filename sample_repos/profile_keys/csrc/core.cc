int core() { return 0; }
