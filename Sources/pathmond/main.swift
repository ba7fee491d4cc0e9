print("pathmond")
