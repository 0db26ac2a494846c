#include "avatar/avatar_renderer.h"

namespace lingcast {

AvatarRenderer::AvatarRenderer() : AvatarRenderer(rig::BuiltInPresenter()) {}

AvatarRenderer::AvatarRenderer(std::shared_ptr<const rig::Rig> rig) : renderer_(std::move(rig)) {}

Rect AvatarRenderer::MouthRegion(const Rect& area) {
  return RigRenderer(rig::BuiltInPresenter()).RegionOf(area, "mouth");
}

Rect AvatarRenderer::EyesRegion(const Rect& area) {
  return RigRenderer(rig::BuiltInPresenter()).RegionOf(area, "eyes");
}

}  // namespace lingcast
