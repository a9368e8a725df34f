package io.healbench.common.backbone;

/** A backbones file or an ad-hoc backbone that cannot be used, with a message a user can act on. */
public class BackboneException extends RuntimeException {

    public BackboneException(String message) {
        super(message);
    }
}
