"""The table's page: a Starlette app on uvicorn, in its own thread inside `bermuda-hw run`."""
