print("pathctl")
