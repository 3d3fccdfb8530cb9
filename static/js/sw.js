// placeholder __STATIC__
