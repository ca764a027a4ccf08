"""Names of a few closed classes (countries, U.S. states, languages), so that an answer to
"which country …" or "what language …" is one of them rather than a city or a county.

Classic question answering types its candidates the same way; the lists are small and stable,
and they are consulted only for the noun a question asks about.
"""

from __future__ import annotations

from deepresearch.lexicon import LANGUAGES


def _names(text: str) -> frozenset[str]:
    return frozenset(" ".join(name.split()) for name in text.lower().split(",") if name.strip())


COUNTRIES = _names(
    """Afghanistan, Albania, Algeria, Andorra, Angola, Argentina, Armenia, Australia, Austria,
    Azerbaijan, Bahamas, Bahrain, Bangladesh, Barbados, Belarus, Belgium, Belize, Benin, Bhutan,
    Bolivia, Bosnia and Herzegovina, Botswana, Brazil, Brunei, Bulgaria, Burkina Faso, Burundi,
    Cambodia, Cameroon, Canada, Cape Verde, Chad, Chile, China, Colombia, Comoros, Congo, Costa Rica,
    Croatia, Cuba, Cyprus, Czech Republic, Czechia, Denmark, Djibouti, Dominica, Dominican Republic,
    East Timor, Ecuador, Egypt, El Salvador, England, Equatorial Guinea, Eritrea, Estonia, Eswatini,
    Ethiopia, Fiji, Finland, France, Gabon, Gambia, Georgia, Germany, Ghana, Great Britain, Greece,
    Grenada, Guatemala, Guinea, Guinea-Bissau, Guyana, Haiti, Honduras, Hong Kong, Hungary, Iceland,
    India, Indonesia, Iran, Iraq, Ireland, Israel, Italy, Ivory Coast, Jamaica, Japan, Jordan,
    Kazakhstan, Kenya, Kiribati, Kosovo, Kuwait, Kyrgyzstan, Laos, Latvia, Lebanon, Lesotho, Liberia,
    Libya, Liechtenstein, Lithuania, Luxembourg, Madagascar, Malawi, Malaysia, Maldives, Mali, Malta,
    Mexico, Moldova, Monaco, Mongolia, Montenegro, Morocco, Mozambique, Myanmar, Burma, Namibia, Nauru,
    Nepal, Netherlands, New Zealand, Nicaragua, Niger, Nigeria, North Korea, North Macedonia,
    Northern Ireland, Norway, Oman, Pakistan, Palau, Palestine, Panama, Papua New Guinea, Paraguay,
    Peru, Philippines, Poland, Portugal, Puerto Rico, Qatar, Romania, Russia, Rwanda, Saint Lucia,
    Samoa, San Marino, Saudi Arabia, Scotland, Senegal, Serbia, Seychelles, Sierra Leone, Singapore,
    Slovakia, Slovenia, Solomon Islands, Somalia, South Africa, South Korea, South Sudan,
    Soviet Union, Spain, Sri Lanka, Sudan, Suriname, Sweden, Switzerland, Syria, Taiwan, Tajikistan,
    Tanzania, Thailand, Togo, Tonga, Trinidad and Tobago, Tunisia, Turkey, Turkmenistan, Tuvalu,
    Uganda, Ukraine, United Arab Emirates, United Kingdom, UK, United States, United States of America,
    US, U.S., USA, America, Uruguay, Uzbekistan, Vanuatu, Vatican City, Venezuela, Vietnam, Wales,
    Yemen, Yugoslavia, Zambia, Zimbabwe"""
)
US_STATES = _names(
    """Alabama, Alaska, Arizona, Arkansas, California, Colorado, Connecticut, Delaware, Florida,
    Georgia, Hawaii, Idaho, Illinois, Indiana, Iowa, Kansas, Kentucky, Louisiana, Maine, Maryland,
    Massachusetts, Michigan, Minnesota, Mississippi, Missouri, Montana, Nebraska, Nevada,
    New Hampshire, New Jersey, New Mexico, New York, North Carolina, North Dakota, Ohio, Oklahoma,
    Oregon, Pennsylvania, Rhode Island, South Carolina, South Dakota, Tennessee, Texas, Utah, Vermont,
    Virginia, Washington, West Virginia, Wisconsin, Wyoming"""
)
CLOSED_CLASSES = {"country": COUNTRIES, "nation": COUNTRIES, "state": US_STATES, "language": LANGUAGES}


def _key(name: str) -> str:
    return " ".join(name.lower().split())


COMPANY_NOUNS = frozenset(["company", "firm", "business", "corporation", "manufacturer", "carmaker"])
_COMPANY_SUFFIXES = frozenset(
    ["inc", "ltd", "limited", "corporation", "corp", "company", "co", "plc", "gmbh", "ag", "llc", "sa"]
)


def in_class(noun: str | None, name: str) -> bool | None:
    """Whether ``name`` belongs to the closed class ``noun`` names; None when it names none. A
    company is known by its legal suffix ("Airspeed Ltd", "DEM Inc."); a name without one may be a
    company too, so that says nothing (None)."""
    if noun in COMPANY_NOUNS:
        words = name.split()
        return True if len(words) > 1 and words[-1].lower().strip(".,") in _COMPANY_SUFFIXES else None
    members = CLOSED_CLASSES.get(noun or "")
    if members is None:
        return None
    return _key(name) in members


def country_or_state(name: str) -> bool:
    """``name`` is a country or a U.S. state ("North Korea", "New Mexico")."""
    return _key(name) in COUNTRIES or _key(name) in US_STATES


PARTS_OF_STATES = frozenset(
    ["county", "city", "town", "village", "district", "borough", "municipality", "neighborhood"]
)


def wider_place(noun: str | None, name: str) -> bool:
    """``name`` is a country or a U.S. state while ``noun`` asks for a county, a town or a city:
    a place, but not of the kind asked."""
    return noun in PARTS_OF_STATES and country_or_state(name)
