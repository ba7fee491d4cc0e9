print("migrating-client: being written")
