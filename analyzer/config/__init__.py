"""Config stage, before discovery: profiles (types, loading, validation, built-in profiles)."""
