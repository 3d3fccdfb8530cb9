"""The review page is an installable web app (issue 32): a manifest with PNG icons of 192 and 512
pixels, a service worker whose scope covers the review pages under the strict CSP, and an
"Install" button shown only when the browser offers to install."""

from urllib.parse import urljoin

import pytest
from playwright.sync_api import expect

from tests.e2e.test_offline_review import wait_for
from tests.e2e.test_review import log_in

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_manifest_icons_and_the_worker_make_the_review_installable(page, alice, small_deck):
    log_in(page)
    page.goto("/study/review/ray-basics/")
    href = page.locator("link[rel=manifest]").get_attribute("href")
    manifest = page.request.get(href).json()
    assert manifest["start_url"] == "/study/review/" and manifest["display"] == "standalone"
    sizes = {icon["sizes"]: icon["src"] for icon in manifest["icons"]}
    for size in ("192x192", "512x512"):
        icon = page.request.get(urljoin(href, sizes[size]))
        assert icon.status == 200 and icon.headers["content-type"] == "image/png"
    wait_for(page, "navigator.serviceWorker.controller")
    scope = page.evaluate("navigator.serviceWorker.getRegistration().then((r) => r.scope)")
    assert scope == page.evaluate("location.origin + '/'")
    worker = page.request.get("/sw.js")
    assert worker.headers["service-worker-allowed"] == "/"


def test_install_is_offered_only_when_the_browser_offers_it(page, alice, small_deck):
    log_in(page)
    page.goto("/study/review/ray-basics/")
    install = page.locator("#install-app")
    page.evaluate("window.dispatchEvent(new Event('appinstalled'))")
    expect(install).to_be_hidden()
    page.evaluate(
        """() => {
          const offer = new Event("beforeinstallprompt", { cancelable: true });
          offer.prompt = () => { window.prompted = true; };
          offer.userChoice = Promise.resolve({ outcome: "dismissed" });
          window.dispatchEvent(offer);
        }"""
    )
    expect(install).to_be_visible()
    install.click()
    expect(install).to_be_hidden()
    assert page.evaluate("window.prompted === true")
