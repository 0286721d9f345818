"""What kpr's computations return: plain data with the sentences that explain it,
``to_dict``/``to_json``, and HTML views reached through :mod:`kpr.results.views`
(results never import :mod:`kpr.render`)."""
