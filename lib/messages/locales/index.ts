/**
 * The locales we have texts and a voice for: one file per locale (`<tag>.ts`, the tag exactly as
 * the registry spells it), exporting its message texts and its login page's texts, each listed
 * here once. Adding a locale is adding its file and its line in each registry;
 * test/unit/messages/locales/index.test.ts fails when a file is not registered or a text, a plural form or
 * the voice is missing.
 *
 * A leaf: nothing here imports configuration or domain code, only the list of tags
 * (lib/platform/vocabulary.ts), which configuration validates `defaultLocale` against.
 */
import { daDK, daDKLogin } from './da-DK';
import { deDE, deDELogin } from './de-DE';
import { enGB, enGBLogin } from './en-GB';
import { enUS, enUSLogin } from './en-US';
import { esES, esESLogin } from './es-ES';
import { esMX, esMXLogin } from './es-MX';
import { esUS, esUSLogin } from './es-US';
import { frCA, frCALogin } from './fr-CA';
import { frFR, frFRLogin } from './fr-FR';
import { itIT, itITLogin } from './it-IT';
import { jaJP, jaJPLogin } from './ja-JP';
import { koKR, koKRLogin } from './ko-KR';
import { nbNO, nbNOLogin } from './nb-NO';
import { nlNL, nlNLLogin } from './nl-NL';
import { plPL, plPLLogin } from './pl-PL';
import { ptBR, ptBRLogin } from './pt-BR';
import { ptPT, ptPTLogin } from './pt-PT';
import { roRO, roROLogin } from './ro-RO';
import { ruRU, ruRULogin } from './ru-RU';
import { svSE, svSELogin } from './sv-SE';
import { trTR, trTRLogin } from './tr-TR';
import { zhCN, zhCNLogin } from './zh-CN';
import { SUPPORTED_LOCALES, type Locale } from '../../platform/vocabulary';
import type { LocaleStrings, LoginPageStrings } from './types';

export type { LocaleStrings, LoginPageStrings, PluralForms } from './types';

/**
 * Every locale's texts, by its tag. The type makes the registry cover exactly the tags of
 * lib/platform/vocabulary.ts `SUPPORTED_LOCALES`, whose order is the one that matters.
 */
export const LOCALES: Readonly<Record<Locale, LocaleStrings>> = {
  'en-US': enUS,
  'de-DE': deDE,
  'fr-FR': frFR,
  'es-ES': esES,
  'pt-BR': ptBR,
  'en-GB': enGB,
  'fr-CA': frCA,
  'es-MX': esMX,
  'es-US': esUS,
  'pt-PT': ptPT,
  'it-IT': itIT,
  'nl-NL': nlNL,
  'pl-PL': plPL,
  'sv-SE': svSE,
  'da-DK': daDK,
  'nb-NO': nbNO,
  'ro-RO': roRO,
  'tr-TR': trTR,
  'ru-RU': ruRU,
  'ja-JP': jaJP,
  'ko-KR': koKR,
  'zh-CN': zhCN,
};

/**
 * Every locale's texts of the hosted login page, by its tag; apart from the messages' texts so
 * that only the authorization endpoint's bundle carries them (otp-send renders messages only).
 */
export const LOGIN_PAGES: Readonly<Record<Locale, LoginPageStrings>> = {
  'en-US': enUSLogin,
  'de-DE': deDELogin,
  'fr-FR': frFRLogin,
  'es-ES': esESLogin,
  'pt-BR': ptBRLogin,
  'en-GB': enGBLogin,
  'fr-CA': frCALogin,
  'es-MX': esMXLogin,
  'es-US': esUSLogin,
  'pt-PT': ptPTLogin,
  'it-IT': itITLogin,
  'nl-NL': nlNLLogin,
  'pl-PL': plPLLogin,
  'sv-SE': svSELogin,
  'da-DK': daDKLogin,
  'nb-NO': nbNOLogin,
  'ro-RO': roROLogin,
  'tr-TR': trTRLogin,
  'ru-RU': ruRULogin,
  'ja-JP': jaJPLogin,
  'ko-KR': koKRLogin,
  'zh-CN': zhCNLogin,
};

export { SUPPORTED_LOCALES, type Locale };
