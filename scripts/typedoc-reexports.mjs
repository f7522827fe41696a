// @ts-check
/**
 * A typedoc plugin: a name an entry re-exports from another entry (`QuoteSpecSchema` in
 * `imagegen-pricing/server`) is a reference, which typedoc lists on the module page with no summary;
 * this gives it the comment of the declaration it stands for, so every name on a module page has
 * its summary.
 */
import { Converter, ReferenceReflection, ReflectionKind } from "typedoc";

/**
 * Registers the plugin (typedoc calls it for each entry of `plugin` in typedoc.json).
 *
 * @param {import("typedoc").Application} app - The typedoc application.
 * @returns {void}
 */
export function load(app) {
  app.converter.on(Converter.EVENT_RESOLVE_BEGIN, (context) => {
    for (const reflection of context.project.getReflectionsByKind(ReflectionKind.Reference)) {
      if (!(reflection instanceof ReferenceReflection) || reflection.comment) {
        continue;
      }
      const target = reflection.tryGetTargetReflectionDeep();
      if (target?.comment) {
        reflection.comment = target.comment.clone();
      }
    }
  });
}
