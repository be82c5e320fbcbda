# the settings object a plugin may replace: ``flags`` is no module here
flags = None
