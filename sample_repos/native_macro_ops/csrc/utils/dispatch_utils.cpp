// Helpers linked into the extensions (a look-alike).
int dispatch_width() { return 32; }
