"""A stacked area plot whose layers' fill colors are given as facecolor (or facecolors).

stackplot passes every extra keyword on to Axes.fill_between, which it calls once per layer
with its own ``facecolor=`` (the layer's color from *colors* or the color cycle). In matplotlib
3.10.9 a user's ``facecolor`` therefore reaches fill_between twice: TypeError "got multiple
values for keyword argument 'facecolor'" (and ``facecolors`` clashes with that facecolor as an
alias: TypeError too)."""
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import same_color


def test_stackplot_uses_the_given_facecolors_for_its_layers():
    x = np.arange(5)
    lower, upper = x * 1.0, x * 2.0 + 1
    fig, ax = plt.subplots()
    layers = ax.stackplot(x, lower, upper, facecolor=["red", "blue"], colors=["cyan", "magenta"])
    assert [same_color(layer.get_facecolor(), c) for layer, c in zip(layers, ["red", "blue"])] == [True, True]
    layers = ax.stackplot(x, lower, upper, facecolors="green")
    assert all(same_color(layer.get_facecolor(), "green") for layer in layers)
    # without facecolor, colors keeps coloring the layers
    layers = ax.stackplot(x, lower, upper, colors=["cyan", "magenta"])
    assert same_color(layers[1].get_facecolor(), "magenta")
    plt.close(fig)
