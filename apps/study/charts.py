"""The stats and plan pages' charts: the site's one chart module, apps.charts.geometry, under
the names study's views call; charts/charts.html draws them."""

from apps.charts.geometry import bar_chart, paired_bar_chart, year_heatmap

__all__ = ["bar_chart", "paired_bar_chart", "year_heatmap"]
