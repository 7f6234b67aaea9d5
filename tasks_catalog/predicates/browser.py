"""Browser primitives, over the session on the simulated website (see ``servers/browser/state.py``).

URLs are compared by exact, case-sensitive string equality with the page URLs of the site as the
state records them (absolute, no fragment; a trailing slash matters). Form values are strings.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from servers.browser import BrowserState
from tasks_catalog.predicates._registry import Args, Name, Pattern, explains, listing, primitive, search, value


class PageVisited(Args):
    """True when the page `url` was loaded at any time in the session (it is in `visited`: by
    navigation, a link, a form's result page or going back), including the current page."""

    url: Name


class UrlIs(Args):
    """True when the current page is `url`; false when no page is open."""

    url: Name


class FormSubmitted(Args):
    """True when some submission of the form with id `form` has, for every name in `fields`, exactly
    that value (string equality, case-sensitive; a checkbox is "true" or "false"). Fields not named
    may hold anything; an empty `fields` asks only that the form was submitted. A field the
    submission lacks makes that submission not match. `matches` checks free text on its substance:
    for every name in it, the same submission's value must match that pattern (search semantics,
    case-sensitive)."""

    form: Name
    fields: Annotated[dict[str, str], Field(description="field name -> submitted value")]
    matches: Annotated[dict[str, Pattern] | None, Field(description="field name -> pattern its value must match")] = None


@primitive("browser", "pageVisited", PageVisited)
def page_visited(state: BrowserState, args: PageVisited) -> bool:
    return args.url in state.visited


@primitive("browser", "urlIs", UrlIs)
def url_is(state: BrowserState, args: UrlIs) -> bool:
    return state.current_url == args.url


@primitive("browser", "formSubmitted", FormSubmitted)
def form_submitted(state: BrowserState, args: FormSubmitted) -> bool:
    patterns = args.matches or {}
    return any(
        s.form == args.form and all(s.fields.get(name) == value for name, value in args.fields.items())
        and all(search(pattern, s.fields.get(name)) for name, pattern in patterns.items())
        for s in state.submissions
    )


# -- explainers: what each clause asks and what the state held -------------------------------------

@explains("browser", "pageVisited")
def _explain_page_visited(state: BrowserState, args: PageVisited) -> tuple[str, str]:
    return f"{args.url} visited", f"{len(state.visited)} pages visited; the last: {listing(state.visited[-5:], 5)}"


@explains("browser", "urlIs")
def _explain_url_is(state: BrowserState, args: UrlIs) -> tuple[str, str]:
    return f"the current page {args.url}", f"the current page is {state.current_url or 'none (nothing opened)'}"


@explains("browser", "formSubmitted")
def _explain_form_submitted(state: BrowserState, args: FormSubmitted) -> tuple[str, str]:
    expected = f"form {args.form} submitted with {value(args.fields)}" + \
        (f" and values matching {value(args.matches)}" if args.matches else "")
    sent = [s for s in state.submissions if s.form == args.form]
    if not sent:
        forms = sorted({s.form for s in state.submissions})
        return expected, f"form {args.form} was never submitted; forms submitted: {listing(forms)}"
    return expected, f"{len(sent)} submissions of {args.form}; the last sent {value(sent[-1].fields)}"
