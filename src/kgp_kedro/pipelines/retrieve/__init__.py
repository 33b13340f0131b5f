"""retrieve: for every question and configured method, the context passages it would give a"""
