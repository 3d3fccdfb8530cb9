"""Draw the web app's PNG icons (192 and 512 px) from static/img/favicon.svg in Chromium, the
one SVG renderer the project already depends on (`make icons`; the PNGs are committed)."""

import os
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]
SVG = ROOT / "static" / "img" / "favicon.svg"


def main() -> None:
    svg = SVG.read_text()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium"),
            args=["--no-sandbox", "--disable-gpu"],
        )
        for size in (192, 512):
            page = browser.new_page(viewport={"width": size, "height": size})
            page.set_content(
                "<!doctype html><style>html,body{margin:0;background:transparent}"
                f"svg{{display:block;width:{size}px;height:{size}px}}</style>{svg}"
            )
            out = ROOT / "static" / "img" / f"icon-{size}.png"
            page.locator("svg").screenshot(path=str(out), omit_background=True)
            page.close()
            print(out.relative_to(ROOT))
        browser.close()


if __name__ == "__main__":
    main()
