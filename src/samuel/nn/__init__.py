"""The neural network, written by hand: forward and backward passes, Adam, the weights file."""
